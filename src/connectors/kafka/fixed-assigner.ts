import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

const NAME = 'weir-fixed';

/**
 * kafkajs reads only through consumer groups; weir's readers need Kafka's `assign()` (the
 * partitions are weir's splits, not the group's). Each reader is the only member of a group of
 * its own, and this assigner gives it exactly its splits.
 */
export function fixedAssigner(partitions: () => ReadonlyMap<string, readonly number[]>): PartitionAssigner {
  return () => ({
    name: NAME,
    version: 1,
    async assign({ members }) {
      const assignment: Record<string, number[]> = {};
      for (const [topic, ps] of partitions()) assignment[topic] = [...ps];
      return members.map((m, i) => ({
        memberId: m.memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 1, assignment: i === 0 ? assignment : {}, userData: Buffer.alloc(0) }),
      }));
    },
    protocol({ topics }) {
      return { name: NAME, metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }) };
    },
  });
}
