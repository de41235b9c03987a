/**
 * A request only the leader serves (a submission) reached a standby JobManager: HTTP 503 with
 * where the leader is, when one is known, so that a client can go there.
 */
export class NotLeaderError extends Error {
  readonly statusCode = 503;
  readonly leaderAddress: string | undefined;

  constructor(leaderAddress: string | undefined) {
    super(leaderAddress ? `this JobManager is a standby; the leader is at ${leaderAddress}` : 'this JobManager is a standby and no leader is known yet');
    this.name = 'NotLeaderError';
    this.leaderAddress = leaderAddress;
  }
}
