export function WhitepaperPage() {
  return null;
}
