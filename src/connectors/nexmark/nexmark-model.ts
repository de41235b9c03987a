/** Nexmark's records (field names as the Flink port's tables). Times are ms since the epoch. */
export interface Person {
  readonly id: number;
  readonly name: string;
  readonly emailAddress: string;
  readonly creditCard: string;
  readonly city: string;
  readonly state: string;
  readonly dateTime: number;
  readonly extra: string;
}

export interface Auction {
  readonly id: number;
  readonly itemName: string;
  readonly description: string;
  readonly initialBid: number;
  readonly reserve: number;
  readonly dateTime: number;
  readonly expires: number;
  readonly seller: number;
  readonly category: number;
  readonly extra: string;
}

export interface Bid {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly channel: string;
  readonly url: string;
  readonly dateTime: number;
  readonly extra: string;
}

/**
 * One event: exactly one of person, auction and bid is set, as `kind` says. One shape for all
 * three kinds, so code reading events stays monomorphic.
 */
export interface NexmarkEvent {
  readonly kind: 'person' | 'auction' | 'bid';
  readonly person: Person | null;
  readonly auction: Auction | null;
  readonly bid: Bid | null;
}
