import { CONFIG_OPTIONS, SECRET_CONFIG_KEYS, type ConfigKey, type WeirConfig } from '../config/configuration.ts';
import type { JobManagerConfigView, TaskManagerDetailsView, TaskManagerInfoView, TaskManagersView } from '../rest/rest-views.ts';
import type { TaskManagerStateRow } from '../rest/task-manager-state.ts';
import { localStateView, resourceView, restId } from '../rest/task-manager-view-parts.ts';
import type { RegisteredTaskManager } from './registered-task-manager.ts';
import type { ResourceManager } from './resource-manager.ts';

/** One TaskManager as GET /taskmanagers lists it (Flink's TaskManagerInfo, with weir's host). */
export function taskManagerInfo(tm: RegisteredTaskManager, state: readonly TaskManagerStateRow[] = []): TaskManagerInfoView {
  const r = tm.registration;
  return {
    id: restId(tm.id),
    resourceId: tm.id,
    path: `weir://${r.host}:${r.dataPort}/${tm.id}`,
    host: r.host,
    hostname: r.hostname,
    pid: r.pid,
    dataPort: r.dataPort,
    jmxPort: -1,
    // Flink's field is the time of the last heartbeat, despite its name.
    timeSinceLastHeartbeat: tm.lastHeartbeat,
    slotsNumber: tm.slots.length,
    freeSlots: tm.freeSlots,
    totalResource: resourceView(tm.slots.length),
    freeResource: resourceView(tm.freeSlots),
    hardware: { cpuCores: r.hardware.cpuCores, physicalMemory: r.hardware.physicalMemory, freeMemory: tm.freeMemory, managedMemory: 0 },
    memoryConfiguration: {
      frameworkHeap: 0,
      taskHeap: r.hardware.heapLimit,
      frameworkOffHeap: 0,
      taskOffHeap: 0,
      networkMemory: 0,
      managedMemory: 0,
      jvmMetaspace: 0,
      jvmOverhead: 0,
      totalFlinkMemory: r.hardware.heapLimit,
      totalProcessMemory: r.hardware.heapLimit,
    },
    blocked: false,
    localState: localStateView(state, tm.id),
  };
}


export function taskManagersView(resources: ResourceManager, state: readonly TaskManagerStateRow[]): TaskManagersView {
  return { taskmanagers: resources.taskManagers().map((tm) => taskManagerInfo(tm, state)) };
}

/** GET /taskmanagers/:id: Flink's TaskManagerDetailsInfo, the info with its slots' allocations. */
export function taskManagerDetails(tm: RegisteredTaskManager, state: readonly TaskManagerStateRow[]): TaskManagerDetailsView {
  return {
    ...taskManagerInfo(tm, state),
    allocatedSlots: tm.slots.flatMap((a, index) => (a === undefined ? [] : [{ index, allocation: a }])),
    metrics: {
      heapUsed: 0,
      heapCommitted: 0,
      heapMax: tm.registration.hardware.heapLimit,
      nonHeapUsed: 0,
      nonHeapCommitted: 0,
      nonHeapMax: 0,
      directCount: 0,
      directUsed: 0,
      directMax: 0,
      mappedCount: 0,
      mappedUsed: 0,
      mappedMax: 0,
      memorySegmentsAvailable: 0,
      memorySegmentsTotal: 0,
      nettyShuffleMemorySegmentsAvailable: 0,
      nettyShuffleMemorySegmentsUsed: 0,
      nettyShuffleMemorySegmentsTotal: 0,
      nettyShuffleMemoryAvailable: 0,
      nettyShuffleMemoryUsed: 0,
      nettyShuffleMemoryTotal: 0,
      garbageCollectors: [],
    },
  };
}

/** Who leads the cluster as this JobManager sees it (high availability on). */
export interface HaStatus {
  /** This JobManager's part: standby, recovering, leading or closed. */
  readonly role: string;
  /** The leader's REST URL as published in the HA store; null while none is known. */
  readonly leaderAddress: string | null;
  readonly leaderEpoch: number | null;
}

/**
 * The keys /jobmanager/config adds with high availability. They are facts of the running
 * cluster, not settings: their own `high-availability.status.` prefix keeps them apart from the
 * config table's keys.
 */
export const HA_STATUS_KEYS = {
  role: 'high-availability.status.role',
  leaderAddress: 'high-availability.status.leader-address',
  leaderEpoch: 'high-availability.status.leader-epoch',
} as const;

/**
 * GET /jobmanager/config: every key with its effective value (Flink's ClusterConfigurationInfo),
 * secrets left out (a password in a NATS server URL too), and with high availability who leads.
 */
export function jobManagerConfig(config: WeirConfig, ha?: HaStatus): JobManagerConfigView {
  const entries = (Object.keys(CONFIG_OPTIONS) as ConfigKey[])
    .filter((k) => !SECRET_CONFIG_KEYS.has(k) && k !== 'security.cluster.token' && config[k] !== null)
    .map((k) => ({ key: k, value: SERVER_LISTS.has(k) ? withoutCredentials(String(config[k])) : String(config[k]) }));
  if (!ha) return entries;
  return [
    ...entries,
    { key: HA_STATUS_KEYS.role, value: ha.role },
    ...(ha.leaderAddress !== null ? [{ key: HA_STATUS_KEYS.leaderAddress, value: ha.leaderAddress }] : []),
    ...(ha.leaderEpoch !== null ? [{ key: HA_STATUS_KEYS.leaderEpoch, value: String(ha.leaderEpoch) }] : []),
  ];
}

const SERVER_LISTS = new Set<ConfigKey>(['high-availability.nats.servers', 'state.checkpoints.nats.servers']);

/** `nats://user:secret@host:4222,…` as `nats://user:***@host:4222,…`: NATS takes credentials in its URLs too. */
function withoutCredentials(servers: string): string {
  return servers.replace(/(\/\/[^/@,:]*):[^/@,]*@/g, '$1:***@').replace(/(\/\/)([^/@,:]+)@/g, '$1***@');
}
