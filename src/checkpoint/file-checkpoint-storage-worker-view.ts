import { isAbsolute, join } from 'node:path';
import type { ChannelStateHandle, OperatorStateMap, OperatorSubtaskState } from './state-handles.ts';
import type { CheckpointStorageWorkerView } from './checkpoint-storage.ts';
import { writeKeyedStateFile } from './keyed-state-file.ts';
import { readKeyedState } from './incremental/incremental-keyed-state-reader.ts';
import { SHARED_DIRECTORY } from './incremental/shared-state-files.ts';
import { writeIncrementalKeyedState } from './incremental/write-incremental-keyed-state.ts';
import { readChannelState, writeChannelStateFile } from './channel-state-file.ts';
import { stateFileName } from './state-file-name.ts';
import { makeDirectories } from '../fs/make-directories.ts';
import type { StoredStateInfo } from '../state/stored-state-info.ts';

/**
 * Subtasks write their own state files straight into the checkpoint's directory (as Flink's
 * TaskManagers write to the checkpoint storage); only the handles travel to the coordinator.
 */
export const fileCheckpointStorageWorkerView: CheckpointStorageWorkerView = {
  async writeSnapshot(target, captured, task, signal) {
    const dir = target.location;
    await makeDirectories(dir);
    const operators: OperatorSubtaskState[] = [];
    for (const op of captured) {
      let keyed = null;
      const incremental = op.keyed?.incremental;
      if (op.keyed && incremental && op.keyed.tables.length > 0) {
        const sharedDir = target.sharedLocation ?? join(dir, '..', SHARED_DIRECTORY);
        await makeDirectories(sharedDir);
        keyed = await writeIncrementalKeyedState(sharedDir, op.keyed, incremental, op.uid, task.subtask, signal);
        incremental.written(keyed);
      } else if (op.keyed && op.keyed.tables.length > 0) {
        const name = stateFileName(op.uid, task.subtask, 0);
        const handle = await writeKeyedStateFile(join(dir, name), op.keyed, signal);
        keyed = { ...handle, file: name };
      }
      const operator: OperatorStateMap = {};
      for (const [stateName, entry] of op.operator) operator[stateName] = { mode: entry.mode, values: entry.values, ...(entry.serializer ? { serializer: entry.serializer } : {}) };
      operators.push({ operatorId: op.operatorId, uid: op.uid, keyed, operator });
    }
    return { operators, inputChannels: {}, outputChannels: {} };
  },

  async writeChannelState(target, task, channels) {
    const dir = target.location;
    await makeDirectories(dir);
    const name = stateFileName(task.headUid, task.subtask, 1);
    const entries = [...channels.inputs.map(([k, v]) => [`in/${k}`, v] as const), ...channels.outputs.map(([k, v]) => [`out/${k}`, v] as const)];
    const handles = await writeChannelStateFile(join(dir, name), entries);
    const inputChannels: Record<string, ChannelStateHandle> = {};
    const outputChannels: Record<string, ChannelStateHandle> = {};
    for (const [key, handle] of Object.entries(handles)) {
      const relocatable = { ...handle, file: name };
      if (key.startsWith('in/')) inputChannels[key.slice(3)] = relocatable;
      else outputChannels[key.slice(4)] = relocatable;
    }
    return { inputChannels, outputChannels };
  },

  readChannelState(handle, location) {
    return readChannelState(handle, isAbsolute(handle.file) ? handle.file : join(location, handle.file));
  },

  /**
   * One key group at a time, going back to the event loop every few milliseconds: a restore of a
   * large state may take long, but the TaskManager must go on answering heartbeats meanwhile.
   */
  async restoreKeyed(backend, state, directory) {
    const RESTORE_SLICE_MS = 20;
    const resolve = (file: string) => (isAbsolute(file) ? file : join(directory, file));
    let since = performance.now();
    for (const handle of state.keyed) {
      const file = readKeyedState(handle, resolve, backend.keyGroupRange);
      const target = (info: StoredStateInfo, kg: number) => backend.restoreTarget(info, kg);
      for (const kg of file.keyGroups) {
        file.readKeyGroup(kg, target);
        if (performance.now() - since > RESTORE_SLICE_MS) {
          await new Promise((r) => setImmediate(r));
          since = performance.now();
        }
      }
    }
  },
};
