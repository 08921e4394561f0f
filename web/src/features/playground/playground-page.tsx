export function PlaygroundPage() {
  return null;
}
