import { option, TIMER_MAX_MS } from '../config-option.ts';

const MB = 1024 * 1024;

/** The JobManager and TaskManager processes of a cluster: slots, addresses, finished jobs. */
export const CLUSTER_OPTIONS = [
  option('jobstore.max-capacity').intType().atLeast(0).defaultValue(Number.MAX_SAFE_INTEGER)
    .withDescription('Finished, failed and cancelled jobs a JobManager keeps visible (status, exceptions, checkpoint history); the oldest goes first.'),
  option('taskmanager.numberOfTaskSlots').intType().between(1, 1024).defaultValue(1)
    .withDescription(
      'Slots of a TaskManager process (`weir taskmanager --slots`): each is a worker thread and holds one subtask of every vertex, so a job of parallelism p needs p slots.',
    ),
  option('taskmanager.memory.young-generation.size').memoryType().between(8 * MB, 4096 * MB)
    .satisfies((bytes) => (bytes % MB === 0 ? undefined : 'must be a whole number of megabytes (V8 takes the limit in MB)'))
    .defaultValue(192 * MB)
    .withDescription(
      "The most memory the young generation of each TaskManager worker thread's V8 heap may grow to (Node's resourceLimits.maxYoungGenerationSizeMb; Node's default for a worker is 48mb): records and their short-lived objects are born there, and a larger one collects less often and moves fewer objects into the old generation that die soon after. (Flink's counterpart is the JVM's -Xmn in env.java.opts.taskmanager.)",
    ),
  option('taskmanager.host').stringType().defaultValue('127.0.0.1')
    .withDescription(
      'The address a TaskManager process binds its data port to and announces to the JobManager (`weir taskmanager --host`). Beyond loopback, `security.cluster.token` is required.',
    ),
  option('taskmanager.data.port').intType().between(0, 65535).defaultValue(0)
    .withDescription('The port other TaskManagers send records to (one TCP connection per TaskManager pair); 0 takes any free port.'),
  option('taskmanager.resource-id').stringType().noDefaultValue()
    .withDescription(
      'The id of a TaskManager process in the cluster; a second TaskManager with the id of a registered one is refused. Unset: host:data-port and a random suffix.',
    ),
  option('slot.request.timeout').durationType().between(1, TIMER_MAX_MS).defaultValue(5 * 60_000)
    .withDescription(
      'How long a job waits for enough free slots (at its start and at each restart) before it fails, naming how many it needed and how many were offered.',
    ),
] as const;
