// V8 settings for a latency-sensitive server. main.ts imports this module first, so it runs before anything
// else allocates.
import { setFlagsFromString } from 'node:v8';

// Allocation-site pretenuring: after a bulk load (an import, an index build) V8 sees objects from some allocation
// sites survive and starts allocating those sites' objects directly in the old generation. Objects created per
// query at the same sites then fill the old space and lengthen every scavenge: on the 100k-document benchmark,
// p99 at 500 req/s varied between 3 and 30 ms from one run to the next. Allocating young keeps it steady.
setFlagsFromString('--no-allocation-site-pretenuring');
