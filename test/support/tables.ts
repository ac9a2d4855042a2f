/**
 * Every table the collectors write, in an order that truncates cleanly: what "the database
 * as before" compares. Planet status is its tables (sql/0021); the view of its per-tick
 * rows, planet_status_snapshots, is read where a test counts those.
 */
export const DATASET_TABLES = [
  'player_count_snapshots', 'wars', 'planets', 'sectors', 'factions', 'planet_war_info', 'full_status_ticks',
  'planet_status_changes', 'planet_status_latest', 'planet_status_hours', 'full_status_tick_hours', 'full_status_tick_days', 'war_summary_snapshots', 'major_orders', 'major_order_progress', 'dispatches', 'planet_stats_snapshots',
  'tick_sets', 'planet_event_snapshots',
  'planet_event_spans', 'campaign_spans',
] as const
