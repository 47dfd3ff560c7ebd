export function shout(name: string): Promise<string> {
  return Promise.resolve(`hello ${name.toUpperCase()}`);
}
