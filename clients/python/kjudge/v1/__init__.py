"""The kjudge.v1 gRPC stubs (kjudge_pb2, kjudge_pb2_grpc): generated from proto/ by
clients/python/generate_stubs.py and committed (CTest python_client_stubs checks they match)."""
