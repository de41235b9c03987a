import { CHECKPOINTING_OPTIONS } from './checkpointing-options.ts';
import { CLUSTER_OPTIONS } from './cluster-options.ts';
import { HEARTBEAT_OPTIONS } from './heartbeat-options.ts';
import { HIGH_AVAILABILITY_OPTIONS } from './high-availability-options.ts';
import { NETWORK_OPTIONS } from './network-options.ts';
import { PIPELINE_OPTIONS } from './pipeline-options.ts';
import { REST_OPTIONS } from './rest-options.ts';
import { RESTART_OPTIONS } from './restart-options.ts';
import { SECURITY_OPTIONS } from './security-options.ts';
import { STATE_BACKEND_OPTIONS } from './state-backend-options.ts';

/** Every key weir accepts, in the order `weir config` and the README list them. */
export const ALL_OPTIONS = [
  ...PIPELINE_OPTIONS,
  ...CHECKPOINTING_OPTIONS,
  ...STATE_BACKEND_OPTIONS,
  ...RESTART_OPTIONS,
  ...NETWORK_OPTIONS,
  ...HEARTBEAT_OPTIONS,
  ...REST_OPTIONS,
  ...HIGH_AVAILABILITY_OPTIONS,
  ...CLUSTER_OPTIONS,
  ...SECURITY_OPTIONS,
] as const;
