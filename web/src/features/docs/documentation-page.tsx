export function DocumentationPage() {
  return null;
}
