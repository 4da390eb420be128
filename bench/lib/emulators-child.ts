// Child entry for the cost model: starts dynalite and fauxqs (local/emulators.ts) in their own process,
// prints their endpoints and launch credential as one JSON line (to the parent's pipe only), and stops them when the parent closes our stdin.
import { startEmulators } from '../../local/emulators';
import { exitWhenParentCloses } from './child';

const emulators = await startEmulators();
exitWhenParentCloses(() => emulators.stop());
process.stdout.write(`${JSON.stringify(emulators.clientOptions)}\n`);
