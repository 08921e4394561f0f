import { restoreCommand } from './restore-command.js';

/** `godb restore <file | snapshot id | s3://bucket/key>` (`npm run restore -- <file>`): see restore-command.ts. */
restoreCommand(process.argv.slice(2), process.env, process.stdout, process.stderr).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `Restore failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
