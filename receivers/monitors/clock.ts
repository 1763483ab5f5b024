// The monitors' time: a schedule's next run, a missed run, a check-in's time. Tests that run the
// service in their own process move it forward (offsetMs) to reach a crontab's next run without
// waiting a minute for it; a running service never changes it.
export const monitorClock = {
  offsetMs: 0,
  now(): number {
    return Date.now() + monitorClock.offsetMs;
  },
};
