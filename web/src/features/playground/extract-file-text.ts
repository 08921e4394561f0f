import { clientMessages, formatMessage } from '@godb/contract/errors';
import type * as PdfJsModule from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { ClientValidationError } from './build-request';

type PdfJs = typeof PdfJsModule;

const assets = { cMapUrl: '/pdfjs/cmaps/', cMapPacked: true, standardFontDataUrl: '/pdfjs/standard_fonts/' };

/** Method 1: pdf.js with its worker, text page by page. */
async function extractWithWorker(pdfjs: PdfJs, data: ArrayBuffer): Promise<string> {
  const pdf = await pdfjs.getDocument({ data: new Uint8Array(data.slice(0)), ...assets }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n += 1) {
    const content = await (await pdf.getPage(n)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
  }
  await pdf.destroy();
  return pages.join('\n\n');
}

/** Method 2: tolerant parsing (no font loading, no eval, keep going past errors), text streamed page by page. */
async function extractTolerant(pdfjs: PdfJs, data: ArrayBuffer): Promise<string> {
  const pdf = await pdfjs.getDocument({
    data: new Uint8Array(data.slice(0)),
    ...assets,
    disableFontFace: true,
    isEvalSupported: false,
    stopAtErrors: false,
  }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n += 1) {
    try {
      const content = await (await pdf.getPage(n)).getTextContent({ includeMarkedContent: false });
      pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
    } catch {
      pages.push('');
    }
  }
  await pdf.destroy();
  return pages.join('\n\n');
}

/**
 * The text of an uploaded file: a PDF is read page by page with pdf.js (retried by a second method on failure);
 * text/* files are read as text; anything else is refused.
 */
/** An error's message without its closing period: the sentence it is placed in adds its own. */
const reasonOf = (error: unknown) => (error as Error).message.trim().replace(/[.\s]+$/, '');

export async function extractFileText(file: File): Promise<string> {
  const isPdf = file.type === 'application/pdf' || /\.pdf$/i.test(file.name);
  if (!isPdf && !file.type.startsWith('text/')) {
    throw new ClientValidationError(
      formatMessage(clientMessages.unsupportedFileType, { type: file.type || 'unknown' }),
    );
  }
  try {
    if (!isPdf) return await file.text();
    const pdfjs = await import('pdfjs-dist');
    pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
    const data = await file.arrayBuffer();
    try {
      return await extractWithWorker(pdfjs, data);
    } catch (first) {
      try {
        return await extractTolerant(pdfjs, data);
      } catch (second) {
        throw new Error(
          formatMessage(clientMessages.pdfBothMethodsFailed, {
            reason: [...new Set([reasonOf(first), reasonOf(second)])].join('; '),
          }),
        );
      }
    }
  } catch (error) {
    throw new ClientValidationError(formatMessage(clientMessages.fileProcessingError, { reason: reasonOf(error) }));
  }
}
