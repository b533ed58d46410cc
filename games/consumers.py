from channels.generic.websocket import AsyncJsonWebsocketConsumer


class TableConsumer(AsyncJsonWebsocketConsumer):
    pass
