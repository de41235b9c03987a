/**
 * How a database sink applies records: 'insert' appends each row; 'upsert' inserts or updates by
 * key; 'changelog' applies change records (insert, update, delete by key), so the table mirrors
 * the source's. Upsert and changelog commits are idempotent (the same rows again change nothing).
 */
export type DatabaseSinkMode = 'insert' | 'upsert' | 'changelog';
