// The pipeline database sink writer's figures (PipelineSinkWriter.metrics()), by name for the
// views that read them (rest/pipeline-view.ts) without loading the writer.

/** `schema_change_applied:<source table>` = the source time of its last schema change, which the writer applied. */
export const APPLIED_FIGURE = 'schema_change_applied';
/** `schema_change_skipped:<source table>` = the source time of its last schema change, which the writer left out. */
export const SKIPPED_FIGURE = 'schema_change_skipped';
/** `schema_change_outcomes` = how many source tables it reports on: present, it says the sink reports outcomes at all. */
export const OUTCOMES_FIGURE = 'schema_change_outcomes';
