// Differences between the simulator and the real node that are not simulator bugs, and the
// check that every difference found is either explained or a failure (and every explanation
// still needed).

export interface Difference {
  case: string;
  difference: string;
}

export interface KnownDifference {
  /** Matched against the case name. */
  case: RegExp;
  /** Matched against the difference text (compare.ts). */
  difference: RegExp;
  reason: string;
}

/** The info and platform methods a real v1.12.2+ node serves that the simulator does not. */
export const UNSERVED_PLATFORM_METHODS: KnownDifference = {
  case: /^platform-(getValidatorFeeConfig|getSubnet-l1)$/,
  difference: /^(header x-content-type-options present vs absent|shape \$\.result: missing in second|shape \$\.error: missing in first)$/,
  reason:
    'the simulator does not serve platform.getValidatorFeeConfig or platform.getSubnet (the exporter calls neither) and answers ' +
    'them like a release that lacks the method',
};

/** Splits what was found into the unexplained differences and the explanations nothing matched. */
export function explain(found: Difference[], known: KnownDifference[]): { unexplained: string[]; stale: string[] } {
  const matches = (k: KnownDifference, f: Difference) => k.case.test(f.case) && k.difference.test(f.difference);
  return {
    unexplained: found.filter((f) => !known.some((k) => matches(k, f))).map((f) => `${f.case}: ${f.difference}`),
    stale: known.filter((k) => !found.some((f) => matches(k, f))).map((k) => k.reason),
  };
}
