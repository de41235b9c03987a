/** A control message whose type is none of the receiving gateway's methods: a peer of another version, or not weir's. */
export class UnknownMessageError extends Error {
  /** What the message said its type was (not always a string). */
  readonly messageType: unknown;

  constructor(messageType: unknown) {
    super(`unknown message type ${typeof messageType === 'string' ? `'${messageType}'` : String(messageType)}`);
    this.name = 'UnknownMessageError';
    this.messageType = messageType;
  }
}
