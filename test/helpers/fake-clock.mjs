// A wrong system clock for one process, set through its environment (a test helper, not
// shipped): `NODE_OPTIONS=--import=<this file>` with `STATION_AGENT_TEST_CLOCK_AT` (an ISO
// time). From load on, `Date.now()` and `new Date()` run from that time at the real pace;
// the monotonic clock (`performance.now()`) is untouched, as it is when a real clock jumps.
import process from 'node:process';

const at = process.env.STATION_AGENT_TEST_CLOCK_AT;
if (at) {
  const RealDate = Date;
  const offset = RealDate.parse(at) - RealDate.now();
  if (Number.isNaN(offset)) throw new Error(`STATION_AGENT_TEST_CLOCK_AT is not a time: ${at}`);
  class FakeDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = FakeDate;
}
