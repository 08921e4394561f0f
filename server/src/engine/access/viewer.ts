/** Who is reading or writing: the engine's view of a principal. */
export interface Viewer {
  readonly tenantId: string;
  readonly userId: string;
  readonly groups: readonly string[];
}

/** One entry of a document's access list, as stored. */
export interface AccessEntry {
  readonly principal: string;
  readonly role: 'owner' | 'edit' | 'view' | 'list';
  readonly expires_at: number | null;
}
