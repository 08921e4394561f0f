/**
 * The documentation's sections: the specification's ten in its order, with Client libraries (issue #19) after the
 * references; the slug is the deep link.
 */
export const docSections = [
  { slug: 'introduction', title: 'Introduction' },
  { slug: 'system-architecture', title: 'System Architecture' },
  { slug: 'core-features', title: 'Core Features' },
  { slug: 'technical-implementation', title: 'Technical Implementation' },
  { slug: 'api-reference', title: 'API Reference' },
  { slug: 'grpc-reference', title: 'gRPC Reference' },
  { slug: 'client-libraries', title: 'Client Libraries' },
  { slug: 'performance', title: 'Performance and Scalability' },
  { slug: 'use-cases', title: 'Use Cases' },
  { slug: 'deployment-guide', title: 'Deployment Guide' },
  { slug: 'comparison', title: 'Comparison with Similar Products' },
] as const;

export type DocSlug = (typeof docSections)[number]['slug'];
export const defaultDocSlug: DocSlug = 'introduction';
