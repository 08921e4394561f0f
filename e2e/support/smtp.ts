export { SmtpPeer, type ReceivedMail } from '../../server/src/test-support/smtp-peer.js';
