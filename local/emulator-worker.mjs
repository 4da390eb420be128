// The emulators' own thread (see emulators.ts): dynalite for DynamoDB, fauxqs for SQS and S3. Plain
// JavaScript, so it runs as is from the sources (tests) and from the CLI's bundle alike.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { buildApp } from 'fauxqs';
import { guardServer } from './emulator-guard.mjs';

const LOOPBACK = '127.0.0.1';
/** How many of the latest requests the guard's journal keeps (see emulators.ts, `guardLog`). */
const JOURNAL_SIZE = 2_000;
// dynalite is CommonJS and ships no types.
const dynalite = createRequire(import.meta.url)('dynalite');

function closeServer(server) {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Kept-alive SDK sockets would otherwise hold close() open until they time out.
    server.closeIdleConnections();
  });
}

/** The guard's journal: what it did with the latest requests, kept in a ring so a request costs no shift. */
function createJournal() {
  const ring = [];
  let oldest = 0;
  return {
    /** The entries, oldest first. */
    entries: () => [...ring.slice(oldest), ...ring.slice(0, oldest)],
    record: (emulator) => (outcome, reason, request) => {
      const entry = {
        emulator,
        outcome,
        ...(reason === undefined ? {} : { reason }),
        method: request.method,
        url: request.url,
      };
      if (ring.length < JOURNAL_SIZE) ring.push(entry);
      else {
        ring[oldest] = entry;
        oldest = (oldest + 1) % JOURNAL_SIZE;
      }
      // Told at once: local mode warns of it, as something on this machine tried the emulators.
      if (outcome === 'refused') parentPort.postMessage({ refused: entry });
    },
  };
}

async function start({ dataDir, credentials }, journal) {
  // Tables are ACTIVE at once: the real 500 ms CREATING phase would only slow every start.
  const dynamo = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(dataDir === undefined ? {} : { path: dataDir }),
  });
  guardServer(dynamo, credentials, journal.record('dynamodb'));
  await new Promise((resolve, reject) => {
    dynamo.once('error', reject);
    dynamo.listen(0, LOOPBACK, () => {
      dynamo.off('error', reject);
      resolve();
    });
  });
  // buildApp rather than startFauxqs: startFauxqs always listens on 0.0.0.0, which would put an
  // unauthenticated SQS and S3 on the network of every laptop running `npm start`. Its `host` only shapes
  // the queue URLs it hands out.
  const fauxqs = buildApp({ logger: false, host: 'localhost' });
  guardServer(fauxqs.server, credentials, journal.record('fauxqs'));
  let fauxqsEndpoint;
  try {
    fauxqsEndpoint = await fauxqs.listen({ port: 0, host: LOOPBACK });
  } catch (error) {
    await closeServer(dynamo);
    throw error;
  }
  return {
    endpoints: {
      dynamodb: `http://${LOOPBACK}:${dynamo.address().port}`,
      sqs: fauxqsEndpoint,
      s3: fauxqsEndpoint,
    },
    // dynalite waits for its pending writes, so a --data-dir store is left consistent.
    stop: () => Promise.all([closeServer(dynamo), fauxqs.close()]),
  };
}

try {
  const journal = createJournal();
  const emulators = await start(workerData, journal);
  parentPort.on('message', async (message) => {
    if (message === 'guard-log') {
      parentPort.postMessage({ guardLog: journal.entries() });
      return;
    }
    if (message !== 'stop') return;
    try {
      await emulators.stop();
    } finally {
      parentPort.close();
    }
  });
  parentPort.postMessage({ ready: emulators.endpoints });
} catch (error) {
  parentPort.postMessage({ failed: { name: error?.name, message: String(error?.message ?? error) } });
  parentPort.close();
}
