// The names a pipeline's operators report their figures under, shared by the operators and the
// views that read them (REST, dashboard, progress line) without loading the pipeline's modules.

/** The uid of a pipeline's transform-and-route operator: a job with it is a pipeline. */
export const TRANSFORM_ROUTE_UID = 'pipeline-transform-route';
/** `pipeline_route:<source table>><sink table>` = 1: the source table routes to the sink table. */
export const ROUTE_FIGURE = 'pipeline_route';
/** `pipeline_schema_change_<kind, _ for .>:<source table>` = its source time in ms: the table's last schema change. */
export const SCHEMA_CHANGE_FIGURE = 'pipeline_schema_change_';
