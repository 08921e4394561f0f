/** What a route shows while its code loads on the first visit: an empty page of full height, so nothing shifts. */
export function RouteLoading() {
  return <div aria-busy="true" style={{ minHeight: '100vh' }} />;
}
