/** The first stack frame outside weir's own api folder: where the user wrote the call. */
export function callerLocation(): string | undefined {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  const frame = stack.find((line) => !line.includes('/src/api/') && !line.includes('/dist/api/'));
  return frame?.trim().replace(/^at\s+/, '');
}
