/**
 * The metadata commands of Hasura's `/v1/metadata` (Server/API/Metadata.hs, RQLMetadataV1),
 * so that one the engine lacks is answered `not-supported` rather than unknown.
 */

/** The commands Hasura names with a backend prefix, `pg_` for PostgreSQL (Server/API/Backend.hs; `set_table_is_enum` is PostgreSQL's own). */
export const PG_COMMANDS: readonly string[] = [
  'add_source', 'drop_source', 'update_source', 'get_source_tables',
  'track_table', 'untrack_table', 'track_tables', 'untrack_tables', 'set_table_customization', 'set_apollo_federation_config', 'set_table_is_enum',
  'create_insert_permission', 'create_select_permission', 'create_update_permission', 'create_delete_permission',
  'drop_insert_permission', 'drop_select_permission', 'drop_update_permission', 'drop_delete_permission', 'set_permission_comment',
  'create_object_relationship', 'create_array_relationship', 'drop_relationship', 'rename_relationship', 'set_relationship_comment', 'suggest_relationships',
  'create_remote_relationship', 'update_remote_relationship', 'delete_remote_relationship',
  'track_function', 'untrack_function', 'set_function_customization', 'create_function_permission', 'drop_function_permission',
  'add_computed_field', 'drop_computed_field',
  'create_event_trigger', 'delete_event_trigger', 'redeliver_event', 'invoke_event_trigger', 'get_event_logs', 'get_event_invocation_logs', 'get_event_by_id',
];

/** The commands Hasura names without a prefix. */
export const UNPREFIXED_COMMANDS: readonly string[] = [
  'rename_source', 'list_source_kinds', 'get_source_kind_capabilities', 'get_table_info', 'dc_add_agent', 'dc_delete_agent',
  'add_remote_schema', 'update_remote_schema', 'remove_remote_schema', 'reload_remote_schema', 'introspect_remote_schema',
  'add_remote_schema_permissions', 'drop_remote_schema_permissions',
  'create_remote_schema_remote_relationship', 'update_remote_schema_remote_relationship', 'delete_remote_schema_remote_relationship',
  'cleanup_event_trigger_logs', 'create_cron_trigger', 'delete_cron_trigger', 'create_scheduled_event', 'delete_scheduled_event',
  'get_scheduled_events', 'get_event_invocations', 'get_cron_triggers',
  'create_action', 'drop_action', 'update_action', 'create_action_permission', 'drop_action_permission', 'set_custom_types',
  'create_query_collection', 'rename_query_collection', 'drop_query_collection', 'add_query_to_collection', 'drop_query_from_collection',
  'add_collection_to_allowlist', 'drop_collection_from_allowlist', 'update_scope_of_collection_in_allowlist',
  'create_rest_endpoint', 'drop_rest_endpoint',
  'set_api_limits', 'remove_api_limits', 'set_metrics_config', 'remove_metrics_config', 'add_inherited_role', 'drop_inherited_role',
  'replace_metadata', 'export_metadata', 'clear_metadata', 'reload_metadata', 'get_inconsistent_metadata', 'drop_inconsistent_metadata',
  'add_host_to_tls_allowlist', 'drop_host_from_tls_allowlist', 'set_graphql_schema_introspection_options', 'set_query_tags',
  'test_webhook_transform', 'dump_internal_state', 'get_catalog_state', 'set_catalog_state', 'bulk',
];
