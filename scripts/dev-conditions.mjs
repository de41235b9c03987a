// Module hooks for running weir from its repository: `weir-stream` (the package importing itself,
// as examples and fixture jobs do) resolves to the TypeScript sources (the `weir-source` export
// condition) instead of the compiled dist/, which development does not need to build.
export async function resolve(specifier, context, nextResolve) {
  if (specifier !== 'weir-stream' && !specifier.startsWith('weir-stream/')) return nextResolve(specifier, context);
  return nextResolve(specifier, { ...context, conditions: ['weir-source', ...context.conditions] });
}
