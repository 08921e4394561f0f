import { clientMessages } from '@godb/contract/errors';
import { useRef, useState, type FormEvent } from 'react';
import { useForm } from '../../components/ui/use-form';
import { Button } from '../../components/ui/button';
import { Alert, TextAreaField, TextField } from '../../components/ui/form-field';
import { cardDelay, useScrollReveal } from '../../components/ui/use-scroll-reveal';
import { sendMail } from '../../lib/mail';
import { useEmailCheck } from '../../components/ui/use-email-check';
import { usePageTitle } from '../../lib/page-title';
import card from '../../components/ui/card.module.css';
import styles from './contact-page.module.css';

const empty = { name: '', email: '', phone: '', subject: '', message: '' };

const reasons = [
  { title: 'Investors', text: 'Talk to the founders about the roadmap, the market and the beta’s numbers.' },
  { title: 'Partners', text: 'Integrate GoDB into your platform, or build on its search and embeddings.' },
  { title: 'Developers', text: 'Tell us what you are building and what the engine should do next.' },
];

export function ContactPage() {
  usePageTitle('Contact');
  const root = useRef<HTMLDivElement>(null);
  useScrollReveal(root);
  const { form, bind, reset } = useForm(empty);
  const [status, setStatus] = useState<'idle' | 'sending' | 'sent' | 'error'>('idle');
  const email = useEmailCheck(form.email);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!email.passes()) return setStatus('error');
    setStatus('sending');
    const { success } = await sendMail({
      from_name: form.name,
      from_email: form.email,
      phone: form.phone,
      subject: form.subject,
      message: form.message,
    });
    if (success) {
      reset();
      setStatus('sent');
    } else {
      setStatus('error'); // what was typed stays in the form
    }
  };

  return (
    <div ref={root}>
      <section className={styles.hero} aria-labelledby="contact-title">
        <p className={styles.eyebrow}>Partner with Us</p>
        <h1 id="contact-title">Shape the Future of Vector Databases</h1>
        <p className={styles.lead}>
          Investors, partners and developers: tell us what you need from a unified vector, text and graph search engine.
        </p>
      </section>
      <section className={styles.body}>
        <div className={styles.reasons}>
          {reasons.map((reason, index) => (
            <article
              key={reason.title}
              className={`${card.card} ${styles.reason}`}
              data-animate
              data-animate-delay={cardDelay(index)}
            >
              <h2>{reason.title}</h2>
              <p>{reason.text}</p>
            </article>
          ))}
        </div>
        <form className={styles.form} onSubmit={submit} aria-labelledby="contact-form-title">
          <h2 id="contact-form-title">Send us a message</h2>
          {status === 'sent' && <Alert kind="success">{clientMessages.contactSuccess}</Alert>}
          {status === 'error' && <Alert kind="error">{clientMessages.contactFailure}</Alert>}
          <div className={styles.row}>
            <TextField label="Name" required autoComplete="name" {...bind('name')} />
            <TextField
              label="Email"
              type="email"
              required
              autoComplete="email"
              problem={email.problem}
              {...bind('email')}
            />
          </div>
          <div className={styles.row}>
            <TextField label="Phone Number" type="tel" required autoComplete="tel" {...bind('phone')} />
            <TextField label="Subject" required {...bind('subject')} />
          </div>
          <TextAreaField label="Message" required rows={6} {...bind('message')} />
          <Button type="submit" size="lg" disabled={status === 'sending'}>
            {status === 'sending' ? 'Sending...' : 'Send Message'}
          </Button>
        </form>
      </section>
    </div>
  );
}
