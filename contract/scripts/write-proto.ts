// Writes contract/proto/godb.proto from the gRPC definitions in contract/src/grpc.ts.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderProto } from '../src/grpc.js';

writeFileSync(fileURLToPath(new URL('../proto/godb.proto', import.meta.url)), renderProto());
process.stdout.write('Wrote contract/proto/godb.proto\n');
