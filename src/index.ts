// The public surface of weir: the DataStream API, state, connectors' interfaces, and running jobs.
export { defineJob, isJobDefinition } from './api/define-job.ts';
export { JobArgs } from './api/job-args.ts';
export { StreamExecutionEnvironment } from './api/stream-execution-environment.ts';
export { DataStream, KeyedStream } from './api/data-stream.ts';
export { ConnectedStreams, KeyedConnectedStreams, BroadcastConnectedStream, KeyedBroadcastConnectedStream } from './api/connected-streams.ts';
export { BroadcastStream } from './api/broadcast-stream.ts';
export { CoGroupedStreams, CoGroupedWindow, CoGroupedWindowable, JoinedStreams, JoinedWindow, JoinWindowable } from './api/co-grouped-streams.ts';
export type { CoGroupFunction, JoinFunction } from './api/co-grouped-streams.ts';
export { IntervalJoin, IntervalJoined } from './api/interval-join.ts';
export type { JoinBound } from './api/interval-join.ts';
export type { ProcessJoinContext, ProcessJoinFunction } from './api/process-join-function.ts';
export { IntervalJoinError } from './worker/operators/interval-join-error.ts';
export { StreamConnectionError } from './api/stream-connection-error.ts';
export { KeyTypeMismatchError } from './worker/operators/key-type-mismatch-error.ts';
export { BroadcastStateError } from './worker/operators/broadcast-state-error.ts';
export {
  ValueStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  AggregatingStateDescriptor,
} from './api/state-descriptors.ts';
export { StateTtlConfig, StateTtlConfigBuilder } from './api/state-ttl-config.ts';
export type { TtlCleanup, TtlStateVisibility, TtlTimeCharacteristic, TtlUpdateType } from './api/state-ttl-config.ts';
export { StateTtlError } from './api/state-ttl-error.ts';
export { msgpackSerializer } from './api/serializer.ts';
export { Types } from './serialization/types.ts';
export { SerializationError } from './serialization/serialization-error.ts';
export { DEFAULT_CONFIG, CONFIG_OPTIONS, buildConfig, buildLayeredConfig } from './config/configuration.ts';
export { ConfigError } from './config/config-error.ts';
export { ConfigFileError } from './config/config-file-error.ts';
export { parseDuration } from './config/duration.ts';
export { GraphValidationError } from './graph/graph-validation-error.ts';
export { executeJob, createJobMaster } from './coordinator/execute-job.ts';
export { JobMaster } from './coordinator/job-master.ts';
export { JobModuleError } from './api/job-module-error.ts';
export { JobBuildError } from './api/job-build-error.ts';
export { loadJobModule } from './coordinator/job-module.ts';
export { JobFailure } from './coordinator/job-failure.ts';
export { RestoreError } from './coordinator/restore-error.ts';
export { DuplicatingFallbackError } from './coordinator/duplicating-fallback-error.ts';
export { CheckpointFailureError } from './coordinator/checkpoint-failure-error.ts';
export { OperatorFailure } from './worker/operator-failure.ts';
export { KeyedStateError } from './state/keyed-state-error.ts';
export { StateMigrationError } from './state/state-migration-error.ts';
export { CheckpointCorruptedError } from './checkpoint/checkpoint-storage-error.ts';
export { keyGroupFor, operatorIndexForKeyGroup, keyGroupRangeForSubtask, hashKey } from './state/key-group.ts';
export { createLogger } from './log/logger.ts';

// Event time: watermarks, timers, side outputs (Flink's names).
export { WatermarkStrategy } from './api/watermark-strategy.ts';
export { Watermark, MIN_WATERMARK, MAX_WATERMARK } from './api/watermark.ts';
export { BoundedOutOfOrdernessWatermarks } from './api/bounded-out-of-orderness-watermarks.ts';
export { WatermarksWithIdleness } from './api/watermarks-with-idleness.ts';
export { OutputTag } from './api/output-tag.ts';
export { Time } from './api/time.ts';
export { TimeDomain } from './api/timer-service.ts';
export { TimerServiceError } from './worker/timers/timer-service-error.ts';
export { InvalidTimestampError } from './worker/invalid-timestamp-error.ts';
export { MissingTimestampError } from './worker/windowing/missing-timestamp-error.ts';
export { Window, TimeWindow, GlobalWindow } from './api/windowing/window.ts';
export { WindowAssigner, MergingWindowAssigner } from './api/windowing/window-assigner.ts';
export {
  TumblingEventTimeWindows,
  TumblingProcessingTimeWindows,
  SlidingEventTimeWindows,
  SlidingProcessingTimeWindows,
  EventTimeSessionWindows,
  ProcessingTimeSessionWindows,
  GlobalWindows,
} from './api/windowing/window-assigners.ts';
export { Trigger, TriggerResult } from './api/windowing/trigger.ts';
export { EventTimeTrigger, ProcessingTimeTrigger, CountTrigger, ContinuousEventTimeTrigger, PurgingTrigger, NeverTrigger } from './api/windowing/triggers.ts';
export { WindowedStream, AllWindowedStream } from './api/windowing/windowed-stream.ts';

// Async I/O (Flink's AsyncDataStream).
export { AsyncDataStream } from './api/async-data-stream.ts';
export { AsyncRetryStrategies } from './api/async-retry-strategy.ts';
export { AsyncRequestError } from './worker/async/async-request-error.ts';
export { AsyncTimeoutError } from './worker/async/async-timeout-error.ts';
export type { AsyncFunction, AsyncWaitOptions, AsyncOutputMode } from './api/async-function.ts';
export type { AsyncRetryStrategy, RetryPredicates, FixedDelayRetry, ExponentialBackoffRetry } from './api/async-retry-strategy.ts';

export type { JobDefinition, JobPlan, ConfigLayers } from './api/define-job.ts';
export type { CheckpointingOptions } from './api/stream-execution-environment.ts';
export type { TimestampAssigner, WatermarkAlignment } from './api/watermark-strategy.ts';
export type { WatermarkOutput } from './api/watermark.ts';
export type { WatermarkGenerator, WatermarkGeneratorContext } from './api/watermark-generator.ts';
export type { TimerService } from './api/timer-service.ts';
export type { TriggerContext, OnMergeContext } from './api/windowing/trigger.ts';
export type { WindowAssignerContext, WindowKey } from './api/windowing/window-assigner.ts';
export type { ProcessWindowFunction, ProcessAllWindowFunction, WindowContext, WindowFunction } from './api/windowing/process-window-function.ts';
export type { WindowFn, UseApplyForAPlainFunction } from './api/windowing/windowed-stream.ts';
export type { KeyedStateStore } from './api/windowing/keyed-state-store.ts';
export type { ProcessFunction, ProcessContext } from './api/process-function.ts';
export type { SourceSettings } from './api/stream-execution-environment.ts';
export type { DurationArg } from './api/duration-arg.ts';
export type {
  Collector,
  RuntimeContext,
  KeyedContext,
  OnTimerContext,
  KeyedProcessFunction,
  KeySelector,
  MapFunction,
  FlatMapFunction,
  FilterFunction,
  ReduceFunction,
  TaskInfo,
} from './api/functions.ts';
export type { CoProcessFunction, KeyedCoProcessFunction, CoMapFunction, CoFlatMapFunction } from './api/co-process-function.ts';
export type {
  BroadcastProcessFunction,
  KeyedBroadcastProcessFunction,
  BroadcastState,
  ReadOnlyBroadcastState,
  BroadcastContext,
  ReadOnlyBroadcastContext,
  KeyedBroadcastContext,
  KeyedReadOnlyBroadcastContext,
  KeyedBroadcastOnTimerContext,
  KeyedStateFunction,
} from './api/broadcast-process-function.ts';
export type { ValueState, ListState, MapState, ReducingState, AggregatingState, OperatorListState } from './api/state.ts';
export type { TypeSerializer } from './api/serializer.ts';
export type { TypeInfo, ValueOf } from './serialization/type-info.ts';
export type { AggregateFunction, StateDescriptor } from './api/state-descriptors.ts';
export type {
  Source,
  SourceReader,
  ReaderActivity,
  SourceOutput,
  SourceReaderContext,
  InputStatus,
  Boundedness,
  SplitEnumerator,
  EnumeratorContext,
  SplitEnumeratorContext,
  CheckpointCompletion,
} from './api/source.ts';
export type { Sink, SinkWriter, SinkContext, SinkCheckpointing } from './api/sink.ts';
export type { TwoPhaseCommittingSink, PrecommittingSinkWriter, PrecommitCheckpoint, Committer, SchemaChangeClassifier } from './api/two-phase-committing-sink.ts';
export type { DeadLetter } from './api/dead-letter.ts';
export type { OperatorSettings } from './api/transformation.ts';
export type { WeirConfig, ConfigKey, ConsistencyMode, ConfigLayer } from './config/configuration.ts';
export type { ConfigSource } from './config/config-source.ts';
export type { ExecuteJobOptions } from './coordinator/execute-job.ts';
export type { JobResult, JobListener } from './coordinator/job-master.ts';
export type { JobStatus } from './coordinator/job-status.ts';
export type { Key } from './state/key-group.ts';

// Types that exported functions and classes take or return, so that users can name them
// (test/api/exported-types.test.ts checks every entry point).
export type { JobBuilder, PlanOptions } from './api/define-job.ts';
export type { NumericField } from './api/data-stream.ts';
export type { DescriptorOptions, StateUpgrade } from './api/state-descriptors.ts';
export type { JsonValue, StructField, Type } from './serialization/type-info.ts';
export type { TupleValue } from './serialization/types.ts';
export type { SerializationFacts } from './serialization/serialization-error.ts';
export type { SerializerSnapshot } from './serialization/serializer-snapshot.ts';
export type { ExceptionRecord } from './coordinator/job-result.ts';
export type { CompletedCheckpoint } from './coordinator/completed-checkpoint.ts';
export type { TaskStatus } from './network/task-status.ts';
export type { LoadedJobModule } from './coordinator/job-module.ts';
export type { SerializedError } from './rpc/serialized-error.ts';
export type { DuplicatingFallbackFacts } from './coordinator/duplicating-fallback-error.ts';
export type { KeyGroupRange } from './state/key-group.ts';
export type { LogFields, Logger, LoggerOptions, LogLevel } from './log/logger.ts';
export type { PlainWindowFunction } from './api/windowing/windowed-stream.ts';
export type { CommitRetryPolicy } from './api/two-phase-committing-sink.ts';
export type { FaultInjectionOptions } from './coordinator/fault-injector.ts';
export type { CheckpointFailureReport, PendingSubtask } from './checkpoint/checkpoint-failure-reason.ts';
export type { CheckpointMetadata, OperatorStateMetadata, SubtaskStateMetadata } from './checkpoint/checkpoint-metadata.ts';
export type { ActivityReport, TaskActivity } from './network/task-activity.ts';
export type { ChannelStateHandle, KeyedStateHandle, OperatorStateMap } from './checkpoint/state-handles.ts';
export type { KeyedStateInfo } from './state/stored-state-info.ts';
