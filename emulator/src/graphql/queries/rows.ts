/**
 * The store's row types and their mapping, read-only here: the GraphQL queries read the
 * same tables the REST side writes, through the store's own definitions.
 */
export { toDetectionRecord, type DetectionRow } from '../../store/detections.js';
export { toSpeciesRecord, type SpeciesRow } from '../../store/species.js';
