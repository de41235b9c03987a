import { option, TIMER_MAX_MS } from '../config-option.ts';

/** NATS bucket names, which weir's cluster ids become part of: letters, digits, '-' and '_'. */
const NATS_NAME = /^[A-Za-z0-9_-]+$/;

/** Leadership and job records on NATS, and checkpoint storage on NATS (which shares its credentials). */
export const HIGH_AVAILABILITY_OPTIONS = [
  option('high-availability.type').enumType(['none', 'nats']).defaultValue('none')
    .withDescription(
      'none: leadership, checkpoint pointers and job records live in this process only. nats: on NATS JetStream (key-value buckets and an object store, RAFT-replicated), so a standby JobManager can take over.',
    )
    .withDeprecatedKeys('high-availability'),
  option('high-availability.cluster-id').stringType()
    .satisfies((id) => (NATS_NAME.test(id) ? undefined : "may hold only letters, digits, '-' and '_' (it names NATS buckets)"))
    .defaultValue('default')
    .withDescription(
      "The cluster's name: its JobManagers contend for one leadership, and its records live in a bucket of its own. Letters, digits, '-' and '_'.",
    ),
  option('high-availability.nats.servers').stringType().noDefaultValue()
    .withDescription('NATS servers, comma-separated (`nats://host:4222,nats://host2:4222`). Required with high-availability.type nats.'),
  option('high-availability.nats.lease-duration').durationType().between(500, TIMER_MAX_MS).defaultValue(15_000)
    .withDescription(
      "How long a leader's lease lasts without a renewal. The leader renews every tenth of it and gives leadership up when it could not renew for four fifths of it; a contender takes over once the record has not changed for a whole lease by its own clock. Losing one NATS node costs its streams a leader election of several seconds (10 s on a loaded host), which a lease much shorter than the default cannot outlast.",
    ),
  option('high-availability.nats.connect-timeout').durationType().between(1, TIMER_MAX_MS).defaultValue(5_000)
    .withDescription('How long one attempt to connect to NATS may take at the start.'),
  option('high-availability.nats.startup-timeout').durationType().between(0, TIMER_MAX_MS).defaultValue(180_000)
    .withDescription(
      "How long a JobManager or TaskManager waits at its start for NATS to be ready (a server to answer, JetStream and the HA buckets' streams to have leaders), retrying with a backoff and logging each attempt, before it exits with an error naming the servers and what it waited for. 0: one attempt.",
    ),
  option('high-availability.nats.replicas').intType().between(1, 5).defaultValue(3)
    .withDescription('Replicas of the buckets weir creates on NATS (key-value and object stores, also checkpoint storage). 1 for a single server.'),
  option('high-availability.nats.bucket').stringType()
    .satisfies((bucket) => (NATS_NAME.test(bucket) ? undefined : "may hold only letters, digits, '-' and '_' (a NATS bucket name)"))
    .noDefaultValue()
    .withDescription(
      "The key-value bucket of the cluster's HA records (its job bundles go to `<bucket>-blobs`). Unset: `weir-ha-<cluster-id>`. A bucket written by another cluster id or layout version is refused.",
    ),
  option('high-availability.nats.user').stringType().noDefaultValue().withDescription('NATS user (with high-availability.nats.password).'),
  option('high-availability.nats.password').stringType().noDefaultValue().withDescription('NATS password. Never shown by the REST API.').secret(),
  option('high-availability.nats.token').stringType().noDefaultValue()
    .withDescription('NATS authentication token (instead of user and password). Never shown by the REST API.')
    .secret(),
  option('high-availability.nats.creds-file').stringType().noDefaultValue().withDescription('A NATS credentials file (JWT and NKey seed).'),
  option('state.checkpoints.nats.servers').stringType().noDefaultValue()
    .withDescription(
      'NATS servers of `nats-obj://<bucket>/<prefix>` checkpoint storage. Unset: high-availability.nats.servers. Credentials are the high-availability.nats ones.',
    ),
  option('state.checkpoints.nats.timeout').durationType().between(1, TIMER_MAX_MS).defaultValue(10_000)
    .withDescription(
      'How long an operation of `nats-obj://` checkpoint storage may go without progress (no chunk read or acknowledged, no answer) before it fails: a store without quorum fails checkpoints and restores instead of hanging them.',
    ),
] as const;
