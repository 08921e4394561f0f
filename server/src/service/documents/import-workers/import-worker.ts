import { parentPort } from 'node:worker_threads';
import { documentLanguage } from '../../../engine/text/languages.js';
import { analysed } from '../../../engine/text/tokenize.js';
import { errorShapeOf, prepareLineAlone } from './line-preparation.js';
import type { SliceReply, SliceRequest } from './protocol.js';

// Test hook only (issue #40's crash test sets it before the pool starts): a line containing this text makes the
// worker exit, as a crash would. Unset in production, where the check below never matches.
const exitOn = process.env.GODB_TEST_IMPORT_WORKER_EXIT_ON;

parentPort?.on('message', (request: SliceRequest) => {
  const transfer: ArrayBuffer[] = [];
  const results = request.lines.map((line) => {
    if (exitOn && line.text?.includes(exitOn)) process.exit(70);
    try {
      const doc = prepareLineAlone(line, request.ownerId);
      // The given vectors' buffers move to the server thread rather than being copied.
      for (const v of doc.vectors) if (v.vector.buffer instanceof ArrayBuffer) transfer.push(v.vector.buffer);
      // The chunks' text analysis too, which the writer would otherwise do inside its transaction.
      const language = documentLanguage(doc.fields.lang_code);
      return { doc, terms: doc.chunks.map((chunk) => analysed(chunk.content, language)) };
    } catch (error) {
      return { error: errorShapeOf(error) };
    }
  });
  const reply: SliceReply = { id: request.id, results };
  parentPort?.postMessage(reply, transfer);
});
