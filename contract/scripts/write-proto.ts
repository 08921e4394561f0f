// Writes contract/proto/godb.proto and contract/src/grpc-field-numbers.ts from the gRPC definitions
// (contract/src/grpc.ts) and the TypeBox schemas they name: a new field takes the next free number of its message.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { grpcFieldNumbers } from '../src/grpc-field-numbers.js';
import { fieldNumbers } from '../src/grpc-messages.js';
import { grpcMessages, renderProto } from '../src/grpc.js';

const numbersFile = fileURLToPath(new URL('../src/grpc-field-numbers.ts', import.meta.url));
const numbers = fieldNumbers(grpcMessages, grpcFieldNumbers);
const source = `// Written by \`npm run proto -w contract\`: the field numbers of the gRPC messages. They are the wire format, so a
// field keeps its number for good; a new field takes the next free one, and the number of a removed one stays here
// (reserved in the proto) so it is never reused.
export const grpcFieldNumbers: Readonly<Record<string, Readonly<Record<string, number>>>> = ${JSON.stringify(numbers, null, 2)};
`;
writeFileSync(numbersFile, await format(source, { ...(await resolveConfig(numbersFile)), filepath: numbersFile }));
writeFileSync(fileURLToPath(new URL('../proto/godb.proto', import.meta.url)), renderProto());
process.stdout.write('Wrote contract/proto/godb.proto and contract/src/grpc-field-numbers.ts\n');
