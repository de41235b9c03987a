/** `$.word` for identifiers, `$["odd key"]` for anything else: a path a reader can paste into code. */
export function memberPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
