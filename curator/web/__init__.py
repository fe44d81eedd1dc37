"""The designer's workspace in the browser (`curator serve`): a FastAPI app over results
folders (`curator.web.app`) and its static page (`static/`: plain HTML, CSS and JavaScript).
"""
