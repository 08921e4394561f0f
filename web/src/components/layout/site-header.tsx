import { useEffect, useId, useRef, useState } from 'react';
import { Link, NavLink } from 'react-router';
import { siteConfig } from '../../config/env';
import { paths } from '../../config/paths';
import styles from './site-header.module.css';

export interface NavItem {
  readonly label: string;
  readonly href: string;
}

/** The links of the main navigation (site-spec §2 "Shared navigation"). */
export const mainNav: readonly NavItem[] = [
  { label: 'Home', href: paths.home.getHref() },
  { label: 'Whitepaper', href: paths.whitepaper.getHref() },
  { label: 'Documentation', href: paths.documentation.getHref() },
  { label: 'API Playground', href: paths.playground.getHref() },
  { label: 'Contact', href: paths.contact.getHref() },
];

function Logo() {
  return (
    <Link to={paths.home.getHref()} className={styles.logo} aria-label="GoDB home">
      <svg width="28" height="28" viewBox="0 0 64 64" aria-hidden="true">
        <rect width="64" height="64" rx="14" fill="#0b1020" />
        <circle cx="20" cy="22" r="6" fill="#7c8cff" />
        <circle cx="44" cy="20" r="5" fill="#38d3c4" />
        <circle cx="32" cy="44" r="7" fill="#7c8cff" />
        <path d="M20 22 44 20 32 44Z" fill="none" stroke="#c7ceff" strokeWidth="2.5" />
      </svg>
      <span>GoDB</span>
    </Link>
  );
}

/**
 * Sticky header. On small screens the links collapse behind a toggle; choosing a link closes the menu and
 * navigates.
 */
export function SiteHeader({ items = mainNav }: { items?: readonly NavItem[] }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const toggle = useRef<HTMLButtonElement>(null);

  // Escape closes the open menu and gives focus back to its toggle, as for any disclosure.
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  const links = (
    <>
      {items.map((item) => (
        <NavLink
          key={item.href}
          to={item.href}
          end={item.href === '/'}
          className={({ isActive }) => (isActive ? `${styles.link} ${styles.active}` : styles.link)}
          onClick={() => setOpen(false)}
        >
          {item.label}
        </NavLink>
      ))}
      {siteConfig.repositoryUrl && (
        <a
          className={`${styles.link} ${styles.external}`}
          href={siteConfig.repositoryUrl}
          target="_blank"
          rel="noopener noreferrer"
          onClick={() => setOpen(false)}
        >
          GitHub<span className="visually-hidden"> (opens in a new tab)</span>
        </a>
      )}
    </>
  );

  return (
    <header className={styles.header}>
      <div className={styles.inner}>
        <Logo />
        <nav className={styles.desktopNav} aria-label="Main">
          {links}
        </nav>
        <button
          ref={toggle}
          type="button"
          className={styles.toggle}
          aria-expanded={open}
          aria-controls={menuId}
          aria-label={open ? 'Close menu' : 'Open menu'}
          onClick={() => setOpen((value) => !value)}
        >
          <span className={styles.bar} />
          <span className={styles.bar} />
          <span className={styles.bar} />
        </button>
      </div>
      {open && (
        <nav id={menuId} className={styles.mobileNav} aria-label="Main">
          {links}
        </nav>
      )}
    </header>
  );
}
