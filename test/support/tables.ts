/** Every table the collectors write, in an order that truncates cleanly: what "the database as before" compares. */
export const DATASET_TABLES = [
  'player_count_snapshots', 'wars', 'planets', 'sectors', 'factions', 'planet_war_info', 'full_status_ticks',
  'planet_status_snapshots', 'war_summary_snapshots', 'major_orders', 'major_order_progress', 'dispatches', 'planet_stats_snapshots',
  'campaign_snapshots', 'planet_event_snapshots', 'planet_attack_snapshots', 'joint_operation_snapshots', 'planet_effect_snapshots',
  'planet_event_spans', 'campaign_spans',
] as const
