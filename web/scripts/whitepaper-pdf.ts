// Builds dist/godb-whitepaper.pdf from the same content the whitepaper page renders.
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import PDFDocument from 'pdfkit';
import {
  whitepaperSections,
  whitepaperSubtitle,
  whitepaperTitle,
} from '../src/features/whitepaper/whitepaper-content.js';

const target = process.argv[2] ?? 'dist/godb-whitepaper.pdf';
mkdirSync(dirname(target), { recursive: true });
const doc = new PDFDocument({
  size: 'A4',
  margins: { top: 64, bottom: 64, left: 64, right: 64 },
  info: { Title: whitepaperTitle, Author: 'GoDB' },
});
const done = new Promise<void>((resolve, reject) => {
  const out = createWriteStream(target);
  out.on('finish', resolve);
  out.on('error', reject);
  doc.pipe(out);
});

doc.fillColor('#4f5dff').font('Helvetica-Bold').fontSize(11).text('WHITEPAPER');
doc.moveDown(0.5).fillColor('#141a2e').fontSize(24).text(whitepaperTitle);
doc.moveDown(0.4).fillColor('#55607a').font('Helvetica').fontSize(12).text(whitepaperSubtitle);
doc.moveDown(1.5);
for (const section of whitepaperSections) {
  doc.fillColor('#141a2e').font('Helvetica-Bold').fontSize(17).text(section.title);
  doc.moveDown(0.5);
  for (const block of section.blocks) {
    if ('h3' in block) {
      doc.moveDown(0.3).font('Helvetica-Bold').fontSize(12.5).fillColor('#141a2e').text(block.h3).moveDown(0.3);
    } else if ('list' in block) {
      doc
        .font('Helvetica')
        .fontSize(11)
        .fillColor('#2b3350')
        .list([...block.list], { bulletRadius: 2, textIndent: 12, paragraphGap: 4 });
      doc.moveDown(0.6);
    } else {
      doc.font('Helvetica').fontSize(11).fillColor('#2b3350').text(block.p, { align: 'left', lineGap: 3 });
      doc.moveDown(0.7);
    }
  }
  doc.moveDown(0.8);
}
doc.end();
await done;
process.stdout.write(`Wrote ${target}\n`);
