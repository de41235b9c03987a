/**
 * Flink CDC's `__data_event_type__` of a weir CDC record's image: snapshot rows and inserts are
 * '+I', an update's before image '-U' and after image '+U', a delete '-D'.
 */
export function dataEventType(op: 'r' | 'c' | 'u' | 'd', image: 'before' | 'after'): '+I' | '-U' | '+U' | '-D' {
  if (op === 'd') return '-D';
  if (op === 'u') return image === 'before' ? '-U' : '+U';
  return '+I';
}
