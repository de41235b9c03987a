// Module hooks of the processes that load job bundles (the JobManager, and each slot thread of a
// TaskManager): a bundle keeps weir itself outside (`weir-stream`, `weir-stream/connectors/x`, and
// the engine's own files a job imported by path as `weir-stream/__engine__/<file>`), and those
// resolve to this process's engine, so the job and the runtime share one copy of every class. A
// package the bundle left outside (a native addon) that is not installed here is an error naming
// the package and the host.
let engine;
let ext;
let host;

export async function initialize(data) {
  engine = data.engine;
  ext = data.ext;
  host = data.host;
}

const ENGINE_FILES = '/__engine__/';

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'weir-stream' || specifier.startsWith('weir-stream/')) {
    const sub = specifier.slice('weir-stream'.length);
    const file = sub.startsWith(ENGINE_FILES)
      ? `${sub.slice(ENGINE_FILES.length).replace(/\.(?:ts|mts|js|mjs)$/, '')}.${ext}`
      : sub === ''
        ? `index.${ext}`
        : `${sub.slice(1)}/index.${ext}`;
    // On through the other hooks: from the repository, tsx's make the TypeScript loadable.
    return nextResolve(new URL(file, engine).href, context);
  }
  try {
    return await nextResolve(specifier, context);
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && context.parentURL?.includes('/weir-bundles/') && !specifier.startsWith('.') && !specifier.startsWith('/')) {
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
      throw Object.assign(new Error(`the job imports the package '${name}', which the bundle leaves outside (weir itself and native addons) and which is not installed on ${host}: install it where the JobManager and the TaskManagers run`), { code: 'ERR_MODULE_NOT_FOUND' });
    }
    throw e;
  }
}
