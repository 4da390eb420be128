// Placeholder until the handler lands; the CDK stack bundles this entry point.
export const handler = async (): Promise<never> => {
  throw new Error('not wired yet');
};
