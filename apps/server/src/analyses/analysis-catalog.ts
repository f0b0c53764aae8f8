import { ANALYSIS_FUNCTION_IDS, ANALYSIS_KINDS, type AnalysisDashboard, type AnalysisKind } from '@kinetrace/contracts';
import { analysisTitles } from '@kinetrace/mocap/analyses/index';

/**
 * The analysis functions and their dashboards (spec §3): one of each per kind the engine analyses,
 * with the engine's title, description and info. Fixed in code, so a new engine analysis appears
 * here with its kind; the ids are the contract's.
 */
export interface AnalysisFunctionDefinition {
  id: number;
  kind: AnalysisKind;
  title: string;
  description: string;
  info: string;
}

export const analysisFunctions: AnalysisFunctionDefinition[] = ANALYSIS_KINDS.map((kind) => ({
  id: ANALYSIS_FUNCTION_IDS[kind],
  kind,
  ...analysisTitles[kind],
}));

export const functionById = (id: number): AnalysisFunctionDefinition | undefined =>
  analysisFunctions.find((definition) => definition.id === id);
export const functionOfKind = (kind: AnalysisKind): AnalysisFunctionDefinition =>
  analysisFunctions.find((definition) => definition.kind === kind)!;

/** What the time-normalised curves of each kind are over. */
const curvesTitle: Record<AnalysisKind, string> = {
  gait: 'Joint angles over the gait cycle',
  squat: 'Joint angles over a repetition',
  'sit-to-stand': 'Joint angles over a rise',
  'drop-jump': 'Joint angles over the contact',
};

/**
 * The dashboard of a function: the viewer (looping over the analysed window) and the result's
 * notes; the figures as value ± SD cards and as bars against their normal range; the charted time
 * series and the cycle curves.
 */
export const analysisDashboards: AnalysisDashboard[] = analysisFunctions.map((definition) => ({
  id: definition.id,
  function_id: definition.id,
  kind: definition.kind,
  title: definition.title,
  layout: {
    columns: [
      { widgets: [{ type: 'viewer' }, { type: 'info-text' }] },
      { widgets: [{ type: 'metric-cards' }, { type: 'metric-bars' }] },
      {
        widgets: [
          { type: 'line-chart', title: 'Over time' },
          { type: 'cycle-curves', title: curvesTitle[definition.kind] },
        ],
      },
    ],
  },
}));

export const dashboardById = (id: number): AnalysisDashboard | undefined =>
  analysisDashboards.find((dashboard) => dashboard.id === id);
