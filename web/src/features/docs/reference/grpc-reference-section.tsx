import { GrpcReference } from './grpc-reference';

export default function GrpcReferenceSection() {
  return <GrpcReference />;
}
