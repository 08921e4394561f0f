import type { Page } from 'playwright-core';

/** Answers the sign-in forms' arithmetic check ("3 + 4 = ?") as a person would. */
export async function answerCheck(page: Page): Promise<void> {
  const label = (await page.locator('label', { hasText: '= ?' }).textContent()) ?? '';
  const [a, b] = (/(\d) \+ (\d) = \?/.exec(label) ?? []).slice(1).map(Number);
  await page.getByRole('textbox', { name: /= \?/ }).fill(String((a ?? 0) + (b ?? 0)));
}

/** Registers `email` through the playground's Register form, then logs in through its Login form. */
export async function registerAndSignIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/playground`);
  await page.getByRole('tab', { name: 'Register' }).click();
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Ada Lovelace');
  await page.getByRole('textbox', { name: 'Company', exact: true }).fill('Engines Ltd');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.locator('input[name="confirm"]').fill(password);
  await answerCheck(page);
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByText('Registration successful! Please login.').waitFor();
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.locator('input[name="password"]').fill(password);
  await answerCheck(page);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await page.getByRole('heading', { name: 'API Endpoints' }).waitFor();
}
