export { CollectionSource } from './collection-source.ts';
