import { Link } from 'react-router';
import { ProsePage } from '../../components/layout/prose-page';
import { paths } from '../../config/paths';

export function PrivacyPolicyPage() {
  return (
    <ProsePage
      title="Privacy Policy"
      lead="What GoDB collects through this website and the beta program, and what we do with it."
    >
      <h2>Who we are</h2>
      <p>
        GoDB is a vector database and search engine in beta, offered for evaluation and testing. This policy covers this
        website, the API playground and the binary download program.
      </p>
      <h2>What we collect</h2>
      <ul>
        <li>
          <strong>Account data</strong>: the e-mail address, tenant id and a salted argon2id hash of the password you
          choose when you register for the playground. We never store your password itself.
        </li>
        <li>
          <strong>Messages you send us</strong>: the name, e-mail, phone number, subject and message of the contact
          form; the name, company, e-mail, phone and note of a binary request; the name, e-mail, endpoint and
          description of an issue report.
        </li>
        <li>
          <strong>Data you store in the playground</strong>: documents, metadata and engagement events you send to the
          API. They are kept in your tenant, isolated from every other tenant.
        </li>
        <li>
          <strong>Technical logs</strong>: request ids, paths, status codes and timings, kept to operate and debug the
          service. Logs do not contain request bodies or tokens.
        </li>
      </ul>
      <h2>What we do with it</h2>
      <p>
        We use your data to run the service you asked for: to sign you in, to answer your messages, to send you the
        download link you requested and to improve GoDB. We do not sell personal data and we do not use it for
        advertising.
      </p>
      <h2>Your browser</h2>
      <p>
        The playground keeps your sign-in token in your browser’s local storage under the key <code>authToken</code>.
        Logging out removes it. The site sets no tracking cookies and loads nothing from third-party servers.
      </p>
      <h2>How long we keep it</h2>
      <p>
        Playground data is kept for the duration of the beta. Messages are kept as long as needed to answer them. You
        can ask us to delete your account and data at any time.
      </p>
      <h2>Your rights and contact</h2>
      <p>
        You may ask for a copy of your data, its correction or its deletion. Write to us through the{' '}
        <Link to={paths.contact.getHref()}>contact page</Link>.
      </p>
    </ProsePage>
  );
}
