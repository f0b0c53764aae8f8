/** The query of an analysis dashboard link (spec §2.1): the trial shown, and a subject's share token for others. */
export interface DashboardLink {
  trialId?: string;
  subjectId?: number;
  shareToken?: string;
}

/** `/analysis-dashboard/{id}/?trialId&subjectId&shareToken` (spec §2.1), leaving out what is not given. */
export function analysisDashboardPath(dashboardId: number, link: DashboardLink = {}): string {
  const query = new URLSearchParams();
  if (link.trialId) query.set('trialId', link.trialId);
  if (link.subjectId !== undefined) query.set('subjectId', String(link.subjectId));
  if (link.shareToken) query.set('shareToken', link.shareToken);
  const search = query.toString();
  return `/analysis-dashboard/${dashboardId}/${search ? `?${search}` : ''}`;
}
