/**
 * How the simulated war of 801 resumes, so that `npm run demo` (speed 1) shows every case
 * within its first minutes: the captured defense is in its last minutes (lost), a second
 * one is all but won, a third begins when one of them ends; a showcase order with a task
 * of every kind runs beside the captured order.
 */
export const OPENING = {
  /** War seconds left to the captured defense (17.5 min in the capture). */
  capturedDefenseLeftS: 210,
  /** Steps the near-won defense holds out at the players it starts with. */
  holdoutSteps: 12,
  /** War seconds after the start at which the third defense begins (when a slot is free). */
  nextDefenseAfterS: 150,
  /** How long the showcase order runs, and how long the crowd first rallies to its liberation target. */
  showcaseS: 2 * 86_400,
  showcaseRallyS: 86_400,
  /**
   * When the demo goes live after a day or more of history (WarOptions.liveAtTick), its
   * opening is staged `leadS` before, so that the service has ticks of it in its window: a
   * showcase order again, its liberation target the front the crowd can push hardest (the
   * lowest regeneration), where it rallies for `rallyS`; one defense set to be won in about
   * `winningS` at its players' pace, another with `losingTakenShare` of its health taken and
   * `losingLeftS` to go when the demo goes live, too far behind to be won. No other defense
   * begins the day before.
   */
  live: { leadS: 2 * 3600, rallyS: 3 * 3600, winningS: 6 * 3600, losingLeftS: 3 * 3600, losingTakenShare: 0.15 },
  /**
   * The 2025+ parts (surfaces.ts), staged at the opening and again for the live opening:
   * war seconds after the start (or after going live) at which a global event expires, a
   * tactical action's donations are full (it becomes active), the active one cools down, a
   * region is liberated, the action cooling down is ready again, a liberated region is
   * taken back, and the space station's election ends (it moves). All but the event move
   * on a war minute, so each comes up to a minute later.
   */
  surfaces: { eventExpiresS: 20, actionFullS: 50, actionCooldownS: 90, regionLiberatedS: 120, actionReadyS: 150, regionLostS: 180, stationMovesS: 210 },
} as const
