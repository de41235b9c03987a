/** Where a layer of settings came from: errors about a key name it, so the user knows what to edit. */
export type ConfigSource =
  | { readonly kind: 'file'; readonly path?: string }
  | { readonly kind: 'command-line' }
  | { readonly kind: 'job' };

export function describeConfigSource(source: ConfigSource): string {
  switch (source.kind) {
    case 'file':
      return source.path ? `config file ${source.path}` : 'config file';
    case 'command-line':
      return 'command line';
    case 'job':
      return "the job's own settings";
  }
}
