/** The producer subtasks feeding consumer `consumer` over an edge (forward edges are one-to-one). */
export function producersOf(pointwise: boolean, producers: number, consumer: number): number[] {
  return pointwise ? [consumer] : Array.from({ length: producers }, (_, i) => i);
}

/** The consumer subtasks fed by producer `producer` over an edge. */
export function consumersOf(pointwise: boolean, consumers: number, producer: number): number[] {
  return pointwise ? [producer] : Array.from({ length: consumers }, (_, i) => i);
}
