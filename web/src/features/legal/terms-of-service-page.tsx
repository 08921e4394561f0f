import { Link } from 'react-router';
import { ProsePage } from '../../components/layout/prose-page';
import { paths } from '../../config/paths';

export function TermsOfServicePage() {
  return (
    <ProsePage
      title="Terms of Service"
      lead="The terms under which the GoDB beta, its binary and its API playground are offered."
    >
      <h2>1. Evaluation only</h2>
      <p>
        GoDB is beta software. The binary, the API and the playground are provided for evaluation and testing only. Do
        not use them for production workloads or to store data you cannot afford to lose.
      </p>
      <h2>2. Licence and restrictions</h2>
      <p>
        We grant you a personal, revocable, non-transferable licence to run the GoDB binary for evaluation. You may not:
      </p>
      <ul>
        <li>redistribute the binary, in whole or in part;</li>
        <li>modify it or create derivative works;</li>
        <li>reverse-engineer, decompile or disassemble it, except where the law expressly allows it;</li>
        <li>use it, or the hosted playground, for any commercial purpose.</li>
      </ul>
      <h2>3. Provided as is</h2>
      <p>
        The software and the services are provided “as is” and “as available”, without warranty of any kind, express or
        implied, including merchantability, fitness for a particular purpose and non-infringement.
      </p>
      <h2>4. Liability</h2>
      <p>
        To the fullest extent permitted by law, we disclaim all liability for any direct, indirect, incidental or
        consequential damages, including loss of data or profits, arising from the use of or the inability to use the
        software or the services.
      </p>
      <h2>5. Accounts</h2>
      <p>
        You are responsible for keeping your credentials and tokens secret and for what happens in your tenant. We may
        suspend accounts that abuse the service.
      </p>
      <h2>6. Changes</h2>
      <p>
        We may update these terms as the beta evolves; the version on this page applies. Questions? Use the{' '}
        <Link to={paths.contact.getHref()}>contact page</Link>.
      </p>
    </ProsePage>
  );
}
