/** A greeting for `name`. */
export function greet(name: string): string {
  return `Hello, ${name}!`;
}

export const message = greet('mcpctl');
