/** OTHER_LEADER: another JobManager leads (at leaderAddress); NO_LEADER: none is known (an election is under way); RECOVERING: this one was just granted leadership and is taking over the jobs. */
export type NotLeaderReason = 'OTHER_LEADER' | 'NO_LEADER' | 'RECOVERING';

/**
 * A request only the leader serves (a submission, a job this JobManager does not have) reached a
 * JobManager that does not lead: HTTP 503 with where the leader is, when one is known, so that a
 * client can go there or try again.
 */
export class NotLeaderError extends Error {
  readonly statusCode = 503;
  readonly reason: NotLeaderReason;
  readonly leaderAddress: string | undefined;

  constructor(leaderAddress: string | undefined, recovering = false) {
    const reason: NotLeaderReason = recovering ? 'RECOVERING' : leaderAddress ? 'OTHER_LEADER' : 'NO_LEADER';
    super(
      reason === 'RECOVERING'
        ? 'this JobManager was granted leadership and is still recovering the jobs; try again shortly'
        : reason === 'OTHER_LEADER'
          ? `this JobManager is a standby; the leader is at ${leaderAddress}`
          : 'this JobManager is a standby and there is no leader at the moment (an election is under way); try again shortly',
    );
    this.name = 'NotLeaderError';
    this.reason = reason;
    this.leaderAddress = leaderAddress;
  }
}
